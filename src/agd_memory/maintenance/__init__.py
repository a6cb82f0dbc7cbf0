"""Maintenance of memory files: migrations from older versions, merging two memories, doctor.

The verbs that run these live in `agd_memory.commands.maintenance`.
"""
