"""Joins the analytic engine (model/) and the instrumented machine (sim/) per launch and device
(DESIGN.md: the only layer that combines them)."""
