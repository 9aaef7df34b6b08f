"""minitensor: a small float32 tensor runtime (C++ core, CPython extension, optional CUDA)."""
from . import version
from ._C import Tensor, add, full, matmul, tensor

__version__ = version.__version__

__all__ = ["Tensor", "add", "cuda_is_available", "full", "matmul", "tensor", "version", "__version__"]


def cuda_is_available():
    """True when this build has CUDA kernels and a CUDA device is visible."""
    from . import _C

    return _C.cuda_compiled() and _C.cuda_device_count() > 0
