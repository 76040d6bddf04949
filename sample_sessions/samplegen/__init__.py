"""Builders behind ``make_samples.py``: every sample file is produced from the code in this folder.

Nothing here is random at run time: ids are hashes of (session, counter), timestamps advance from a
fixed start, and the big session uses ``random.Random`` with a fixed seed, so a re-run writes the
same bytes.
"""
