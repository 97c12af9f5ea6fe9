"""The C-subset front end: the CUDA C the lecture notes use, parsed with pycparser and compiled
to vectorised NumPy closures ("as written"; pure Python, runs wherever Python runs)."""
