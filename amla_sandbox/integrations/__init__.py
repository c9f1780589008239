"""Adapters for agent frameworks that choose their code sandbox through a
plug-in interface (docs/integrations.md). Each lives in its own module,
`amla_sandbox.integrations.<framework>`, and needs its framework, installed
with the extra of the same name (`pip install "amla-sandbox[smolagents]"`);
importing one without it raises ImportError naming the extra. This package
itself imports no framework.
"""
