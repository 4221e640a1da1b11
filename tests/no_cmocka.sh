#!/bin/sh
# Built without cmocka: the kernel's unit tests cannot run. Fail loudly
# (exit 99, a hard error) rather than pass: install libcmocka-dev and re-run configure.
echo "ERROR: cmocka not found at configure time; the kernel unit tests were not built (Debian: libcmocka-dev)" >&2
exit 99
