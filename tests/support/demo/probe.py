"""A process for the fork server's own test: prints what it was given, then sleeps or exits."""

import os
import sys
import time

print(f"cwd={os.getcwd()}", f"env={','.join(sorted(os.environ))}", flush=True)
if os.environ.get("PROBE_SLEEP"):
    time.sleep(float(os.environ["PROBE_SLEEP"]))
sys.exit(int(os.environ.get("PROBE_EXIT", "0")))
