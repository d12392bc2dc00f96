"""Shared fixtures of the kernel tests: they drive the INSTALLED kernelspec
"npcompile" (make install), as Jupyter frontends do."""
import pytest
from jupyter_client.manager import start_new_kernel

from .kernel_helpers import KERNEL_NAME, drain, require_kernelspec


@pytest.fixture(scope="session")
def kernelspec():
    return require_kernelspec()


@pytest.fixture(scope="module")
def kernel(kernelspec):
    """(manager, client) of a fresh npcompile kernel, shared by one test module."""
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=60)
    yield km, kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


@pytest.fixture
def kc(kernel):
    client = kernel[1]
    drain(client)
    return client


@pytest.fixture
def km(kernel):
    return kernel[0]
