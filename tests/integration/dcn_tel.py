# SPDX-License-Identifier: BSD-3-Clause
"""A one-shot client of a dcnfwd's telemetry socket, for the tests."""
import json
import socket
import time


def ask(prefix, cmd, ready=None, tries=100):
    """cmd's reply from the dcnfwd of --file-prefix prefix, asked again
    (every 0.1 s, tries times) until it answers, and answers what
    ready(reply) accepts when given; None when it never does."""
    path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
    key = cmd.split(",")[0]
    for _ in range(tries):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            s.connect(path)
            size = json.loads(s.recv(1024))["max_output_len"]
            s.send(cmd.encode())
            reply = json.loads(s.recv(size)).get(key)
            if reply is not None and (ready is None or ready(reply)):
                return reply
        except (OSError, ValueError):
            pass
        finally:
            s.close()
        time.sleep(0.1)
    return None
