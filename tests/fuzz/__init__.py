"""Differential fuzzing of lazyarray (issue 9, item 9).

vocabulary.py the dtypes, value pools, line/program records and op tables drawn from;
programs.py  the hypothesis strategy that draws a random Array API program as a list of lines
             of Python (generation runs array-api-strict alongside, so every drawn line is valid
             under the standard), over
lines.py     the line makers, one method per kind of line;
reference.py array-api-strict adjusted where it departs from what is compared (its aliasing,
             the standard's floor_divide by infinities);
runner.py    runs one program three ways (lazyarray with reads at random points, lazyarray with a
             read after every line, array-api-strict on numpy) and compares every value read;
shrink.py    reduces a failing program to a few lines (line-level delta debugging);
cli.py       the long run behind `bash bin/fuzz.sh N`.
"""
