"""The README's main job, `bash bin/demo.sh`, runs examples/demo.py: it must keep working."""
import pathlib
import runpy


def test_demo_runs_and_checks_itself(capsys):
    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "demo.py"
    runpy.run_path(str(path), run_name="__main__")  # the demo asserts its results against numpy
    out = capsys.readouterr().out
    assert "matches numpy" in out and "k-means: 20 iterations, centers and labels match numpy" in out


def test_sklearn_scipy_example_runs(capsys):
    """The README's "With scikit-learn and SciPy" example checks itself against numpy."""
    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "with_sklearn_scipy.py"
    runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert "matches numpy" in out and "on lazyarray: match numpy" in out and "lazyarray metrics" in out
