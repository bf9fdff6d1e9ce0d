#!/usr/bin/env python3
"""qmp.py - send QMP commands to a running QEMU and print each reply.

    qmp.py SOCKET 'JSON-COMMAND'...

Negotiates capabilities first; asynchronous events are printed and skipped. Exits 1
on the first command QEMU answers with an error, 2 when the socket cannot be used.
"""
import json
import socket
import sys


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(30)
        sock.connect(sys.argv[1])
    except OSError as e:
        print(f"qmp: cannot connect to {sys.argv[1]}: {e}", file=sys.stderr)
        return 2
    stream = sock.makefile("rw")

    def reply():
        while True:
            line = stream.readline()
            if not line:
                raise OSError("QEMU closed the QMP socket")
            msg = json.loads(line)
            if "event" in msg:
                print("event:", json.dumps(msg))
                continue
            return msg

    try:
        reply()  # the greeting
        for cmd in ['{"execute": "qmp_capabilities"}'] + sys.argv[2:]:
            stream.write(cmd + "\n")
            stream.flush()
            r = reply()
            print(">>", cmd)
            print("<<", json.dumps(r))
            if "error" in r:
                return 1
    except (OSError, ValueError) as e:
        print(f"qmp: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
