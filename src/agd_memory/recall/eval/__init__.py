"""The recall evaluation, kept off the hook path: the harness (`evaluate`), the measured
changes over the reference algorithm by name (`features`), and recall with any set of
them switched on (`variants`; `features.REFERENCE` is the reference algorithm itself), and
every set of the repository run with ours and with the reference (`sets`, `eval --all`).
"""
