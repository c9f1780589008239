# Prints the ranges of code points c for which c.isidentifier() ("start")
# and ("a" + c).isidentifier() ("continue") hold, for pyident.txt. Run it
# with the Python guest's interpreter (CPython 3.13), e.g.
#   Sandbox().run(open("pyident.py").read(), language="python")
import sys

for kind, test in (("start", lambda c: c.isidentifier()), ("continue", lambda c: ("a" + c).isidentifier())):
    lo = None
    for cp in range(0x110001):
        ok = cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF and test(chr(cp))
        if ok and lo is None:
            lo = cp
        elif not ok and lo is not None:
            sys.stdout.write(f"{kind} {lo:X} {cp - 1:X}\n")
            lo = None
