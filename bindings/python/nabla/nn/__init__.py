"""nabla.nn: modules, layers, losses, initialisation and functional forms, with PyTorch's names."""
from . import functional, init  # noqa: F401
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel.data_parallel import DataParallel  # noqa: F401
