"""Adapters that plug amla-sandbox into agent frameworks' sandbox interfaces
(docs/integrations.md).

Each adapter is a module of its own, `amla_sandbox.integrations.<name>`,
behind an extra of the same name (`pip install "amla-sandbox[<name>]"`).
This package imports no framework: importing an adapter whose framework
is not installed raises ImportError naming the extra to install.
"""
