"""meshmem: command-line tool, benchmark drivers and (later) the fabric model and bindings."""

__version__ = "0.1.0"
