"""nabla.optim: optimizers whose update is one C call per param group (every parameter at once), and
learning-rate schedulers."""
from . import lr_scheduler  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adafactor import Adafactor  # noqa: F401
from .muon import Muon  # noqa: F401
from .sparse_adam import SparseAdam  # noqa: F401
from ._stateless import swap_in_optimizer_params_and_state  # noqa: F401
from .composed import Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop, LBFGS  # noqa: F401
