# SPDX-License-Identifier: BSD-3-Clause
"""A TCP port on 127.0.0.1 that nothing listens on, for a test's own
server (an exporter, a Prometheus): the kernel picks it."""
import socket


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
