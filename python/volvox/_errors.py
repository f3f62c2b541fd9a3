"""The exceptions volvox raises: one class per error code of the C API (VXError), each with the
engine's message. They derive from volvox.Error, and from the built-in exception that fits, so that
`except ValueError` catches bad arguments as it would elsewhere."""


class Error(RuntimeError):
    """Any error reported by the Volvox engine; `code` is the C API's VXError value."""

    code = 8


class InvalidArgument(Error, ValueError):
    """A bad argument: unknown input or output name, wrong dtype or shape, a closed session, ..."""

    code = 1


class InvalidFile(Error):
    """A file that is corrupt or truncated (a model, weights, an image)."""

    code = 2


class Unsupported(Error):
    """Something Volvox cannot do: an op, a device, fp16 on the CPU, a file extension, ..."""

    code = 3


class IoError(Error, OSError):
    """A file that cannot be read or written."""

    code = 4


class OutOfMemory(Error, MemoryError):
    """An allocation failed, or a model or filter would exceed its memory limit."""

    code = 5


class DeviceLost(Error):
    """The GPU was lost while working."""

    code = 6


class Cancelled(Error):
    """A progress callback returned False."""

    code = 7


class InternalError(Error):
    """A bug in Volvox: please report it with the message."""

    code = 8


_BY_CODE = {cls.code: cls for cls in (InvalidArgument, InvalidFile, Unsupported, IoError, OutOfMemory, DeviceLost,
                                      Cancelled, InternalError)}


def error_for_code(code: int, message: str) -> Error:
    """The exception for a C API error (the extension raises what this returns)."""
    return _BY_CODE.get(code, Error)(message)
