"""The worked example of adding an averaged classifier (``docs/design/architecture.md``,
"Adding an averaged classifier") on a tiny data set, in the default suite.

The example's definitions (model, learner, estimator: the block up to its user's side)
are taken from the page as written and run in a fresh interpreter, so that the learner
and the stored classes it registers stay out of this process's registries; the user's
side here checks the averaged posterior against the shipped naive Bayes and TAN
estimators, the JSON model file (a corrupted one refused by the estimator's own file
checks, one whose ``classes_`` disagree with its model's by the cross-check of what the
model declares) and ``partial_fit``.
"""

import re
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "design" / "architecture.md"
USER_SIDE = "# 4. the user's side"

TINY = """
import copy
import json
from pathlib import Path

from discotree import NaiveBayesClassifier, TANClassifier

rng = np.random.default_rng(0)
y = rng.integers(0, 3, 90)
X = np.stack([(y + rng.integers(0, 3, 90)) % 4 for _ in range(4)], axis=1)
X[:, 3] = (X[:, 2] + rng.integers(0, 2, 90)) % 4  # a dependence TAN can use

clf = NBTANAverageClassifier(tan_weight=0.25).fit(X, y)
proba = clf.predict_proba(X)
nb = NaiveBayesClassifier(alpha=1.0).fit(X, y).predict_proba(X)
tan = TANClassifier(alpha=1.0).fit(X, y).predict_proba(X)
assert np.allclose(proba, 0.75 * nb + 0.25 * tan, rtol=0, atol=1e-12)
assert np.array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])
assert clf.model_.score_kind == "posterior"
assert type(clf.model_).from_state(clf.model_.state()).check() is None

save_json(clf, "averaged.json")
back = load_json("averaged.json")
assert type(back) is NBTANAverageClassifier and back.tan_weight == 0.25
assert np.array_equal(back.predict_proba(X), proba)

# a corrupted file of the new estimator is refused by its own checks (no io/ edit)
for name, edit in (("class_log_prior_", "null"), ("model_", "null"), ("encoder_", "missing")):
    document = json.loads(Path("averaged.json").read_text())
    state = document["content"]["state"]
    state["__dict__"] = [
        [key, None] if key == name else [key, value]
        for key, value in state["__dict__"]
        if not (key == name and edit == "missing")
    ]
    Path("corrupted.json").write_text(json.dumps(document))
    try:
        load_json("corrupted.json")
    except ValueError as error:
        assert str(error).startswith(f"content.{name}: {edit}"), error
        assert "NBTANAverageClassifier" in str(error) or edit == "missing", error
    else:
        raise AssertionError(f"a file with {name} {edit} was loaded")

# a file whose classes_ disagree with the model's classes is refused: the estimator's
# cross-check reads what the model declares (declared_sizes), no name of its class
assert clf.model_.declared_sizes()[0] == 3
wrong = copy.copy(clf)
wrong.classes_ = clf.classes_[:2]
save_json(wrong, "wrong_classes.json")
try:
    load_json("wrong_classes.json")
except ValueError as error:
    assert str(error).startswith("content.classes_: 2 labels but the model has 3 classes"), error
else:
    raise AssertionError("a file with 2 labels for a 3-class model was loaded")

streamed = NBTANAverageClassifier(tan_weight=0.25)
for part in range(3):
    streamed.partial_fit(X[part::3], y[part::3], classes=[0, 1, 2])
assert np.array_equal(streamed.predict_proba(X), proba)
print("ok")
"""


def example_definitions() -> str:
    """The page's block that defines the averaged classifier, up to its user's side."""
    blocks = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), re.S | re.M)
    (block,) = [b for b in blocks if "class AveragedPosteriorModel" in b]
    assert USER_SIDE in block
    return block.split(USER_SIDE)[0]


def test_the_example_defines_the_three_layers():
    code = example_definitions()
    for piece in ("# 1. models/", "# 2. learners/", "# 3. classifiers/", "register_learner("):
        assert piece in code
    shell = code.split("# 3. classifiers/")[1]
    assert not re.search(r"def (predict|save|load|__getstate__|__setstate__)", shell)


def test_the_example_runs_on_a_tiny_data_set(tmp_path):
    script = tmp_path / "example.py"
    script.write_text(example_definitions() + TINY)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
