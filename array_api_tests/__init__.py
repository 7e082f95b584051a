"""Our own conformance tests for the Array API standard (2024.12 and 2025.12).

Written from the text of the standard, one module per chapter. The namespace under test is
named by the environment variable ``LAZYARRAY_TEST_NAMESPACE`` (default ``lazyarray``); numpy
is the oracle wherever the standard and numpy agree. See ``_support.py`` for the knobs.

    pytest array_api_tests                                          # lazyarray
    LAZYARRAY_TEST_NAMESPACE=array_api_strict pytest array_api_tests  # the reference

The official suite (data-apis/array-api-tests) is not vendored: ``run_official.sh`` runs a
checkout of it against lazyarray.
"""
