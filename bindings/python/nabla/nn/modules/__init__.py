"""nabla.nn.modules: the layer classes, one file per family."""
from .module import Module, RemovableHandle
from .linear import Identity, Linear
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, MaxPool3d, AvgPool3d, AdaptiveAvgPool3d
from .normalization import LayerNorm, GroupNorm, BatchNorm1d, BatchNorm2d
from .dropout import Dropout
from .sparse import Embedding, EmbeddingBag
from .activation import ReLU, LeakyReLU, GELU, SiLU, Tanh, Sigmoid, Softmax, LogSoftmax, MultiheadAttention
from .flatten import Flatten, Unflatten
from .container import Container, Sequential, ModuleList, ModuleDict
from .transformer import TransformerEncoderLayer, TransformerEncoder
from .transformer_decoder import TransformerDecoderLayer, TransformerDecoder, Transformer
from .rnn import RNNBase, RNN, LSTM, GRU
from .rnn_cell import RNNCellBase, RNNCell, LSTMCell, GRUCell
from .loss import (CrossEntropyLoss, NLLLoss, NLLLoss2d, MSELoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss, BCEWithLogitsLoss,
                   KLDivLoss)
from .padding import *  # noqa: F401,F403 - ZeroPad2d, ReflectionPad2d, ...
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: F401
from .extra_layers import *  # noqa: F401,F403 - RMSNorm, Dropout2d, Upsample, AdaptiveMaxPool2d, activations
from .param_containers import ParameterList, ParameterDict  # noqa: F401
from .loss_margin import *  # noqa: F401,F403 - MarginRankingLoss, TripletMarginLoss, GaussianNLLLoss, ...
from .more_layers import *  # noqa: F401,F403 - Hardshrink, RReLU, AlphaDropout, Unfold, Fold, Bilinear, ...
from .lazy import *  # noqa: F401,F403 - LazyLinear, LazyConv2d, LazyBatchNorm1d, ...
from .volumetric import *  # noqa: F401,F403 - Conv3d, AdaptiveMaxPool3d, BatchNorm3d
from .pooling_extra import *  # noqa: F401,F403 - MaxUnpool3d, LPPool3d, FractionalMaxPool2d/3d, CrossMapLRN2d
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions  # noqa: F401
from .sync_batchnorm import SyncBatchNorm  # noqa: F401
