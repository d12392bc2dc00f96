"""The live attach: the session streamed to npcompile-viewer over a loopback socket, each
message signed with HMAC-SHA256 under a key (the kernel's own, from its connection file, as
Jupyter signs its channels), so that watching a kernel on a remote GPU server is an SSH
tunnel away (README: "Watching a remote kernel live").

The xnpcompile kernel calls serve_for_kernel() at its start: its attach file,
npcompile-attach-<connection file's name>, lies beside its connection file and names it
(the key stays in the connection file). Any other process may call serve(), which makes a
key and writes it into an attach file of mode 0600.

    npcompile-viewer --attach                          # the newest running npcompile kernel
    npcompile-viewer --attach kernel-<id>.json         # a kernel, by its connection file
    npcompile-viewer --attach npcompile-attach-x.json  # a process that called serve()
"""
import json
import os
import secrets

from .report import profiler


def _native():
    prof = profiler()
    if prof is None or not hasattr(prof, "attach_serve"):
        raise RuntimeError("npcompile: the live attach needs the native profiler "
                           "(npcompile._native did not import); run `make install`")
    return prof


def serve(attach_file=None, key=None, host="127.0.0.1", port=0):
    """Stream this process's session to viewers holding `key` (made when not given) and
    write the attach file (default: npcompile-attach-<pid>.json in Jupyter's runtime
    folder). Returns the attach file's path. A second call replaces the first server."""
    if attach_file is None:
        from jupyter_core.paths import jupyter_runtime_dir
        directory = jupyter_runtime_dir()
        os.makedirs(directory, exist_ok=True)
        attach_file = os.path.join(directory, f"npcompile-attach-{os.getpid()}.json")
    key = key or secrets.token_hex(32)
    _native().attach_serve(key, host, int(port), str(attach_file))
    return str(attach_file)


def serve_for_kernel(connection_file, host="127.0.0.1"):
    """The kernel's attach: its connection file's key, its attach file beside it. Returns
    the attach file's path."""
    with open(connection_file) as f:
        key = json.load(f).get("key") or ""
    if not key:   # a connection file without a key signs nothing: no attach for it
        raise ValueError(f"{connection_file} has no key: the live attach stays off")
    directory, name = os.path.split(os.path.abspath(connection_file))
    attach_file = os.path.join(directory, "npcompile-attach-" + name)
    _native().attach_serve(key, host, 0, attach_file, os.path.abspath(connection_file))
    return attach_file


def stop():
    """Stop streaming and remove the attach file (the kernel's clean shutdown)."""
    prof = profiler()
    if prof is not None and hasattr(prof, "attach_stop"):
        prof.attach_stop()


def status():
    """{'port', 'viewers', 'refused', 'log', 'attach_file'} while serving, else None."""
    prof = profiler()
    return prof.attach_status() if prof is not None and hasattr(prof, "attach_status") else None
