"""The one default device (README, "Which device"): with neither --cc nor --gpu, a command that
needs a product's figures uses DEFAULT_GPU, one that needs only a CC's rules uses its CC; coalesce
and banks, which compare CC families, show every family. Below every layer, so the CLI's help
can name it without loading the device data (a test checks the two agree)."""

DEFAULT_GPU = "h100-sxm"
DEFAULT_CC = "9.0"
