"""The PTX front end: a whole .cu file -> host code removed -> NVRTC -> PTX -> a vectorised PTX
executor over the shared machine ("as compiled")."""
