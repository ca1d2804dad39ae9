"""Regenerates eagerflow/absent_names.json: the public names of the TensorFlow and Keras
namespaces that eagerflow mirrors, so that asking an eagerflow namespace for one it lacks
raises an error saying so (eagerflow/absent.py). Run it with TensorFlow and Keras installed:

    python .ci/absent_names.py > eagerflow/absent_names.json

eagerflow never imports TensorFlow: the JSON file is committed.
"""

import importlib
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

NAMESPACES = [
    "tf", "tf.nn", "tf.math", "tf.linalg", "tf.random", "tf.image", "tf.data",
    "tf.data.experimental", "tf.train", "tf.summary", "tf.config", "tf.debugging",
    "tf.saved_model", "tf.distribute", "tf.dtypes", "tf.errors", "tf.autodiff", "tf.test",
    "keras", "keras.layers", "keras.losses", "keras.metrics", "keras.optimizers",
    "keras.optimizers.schedules", "keras.callbacks", "keras.utils", "keras.ops",
    "keras.activations", "keras.initializers", "keras.regularizers", "keras.constraints",
    "keras.models", "keras.datasets", "keras.saving", "keras.backend", "keras.random",
]


def main() -> None:
    import keras
    import tensorflow as tf

    listing = {"_generated_from": f"tensorflow {tf.__version__}, keras {keras.__version__}"}
    for path in NAMESPACES:
        root, _, rest = path.partition(".")
        module = tf if root == "tf" else keras
        for part in rest.split(".") if rest else []:
            module = getattr(module, part)
        listing[path] = sorted(n for n in dir(module) if not n.startswith("_"))
    json.dump(listing, sys.stdout, indent=0, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
