"""`python -m perfcalc` runs the command line."""

from perfcalc.cli import main

main()
