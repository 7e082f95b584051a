"""Where a marker comment sits in a test file (for tests that check the user line a sync names)."""


def line_of(path, marker):
    """The number of the first line of `path` that contains `marker`, not counting lines that
    call this function."""
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if marker in line and "line_of(" not in line:
                return i
    raise AssertionError(marker)
