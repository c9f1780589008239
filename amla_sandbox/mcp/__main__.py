"""`python -m amla_sandbox.mcp`: serve the sandbox over MCP."""

import sys

from .server import main

sys.exit(main())
