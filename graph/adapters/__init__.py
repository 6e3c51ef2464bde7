"""Other projects' APIs over `Memory`: mem0's (`mem0/`) and the knowledge-graph tools'
(`knowledge_graph/`).

They import the memory's concepts; the concepts never import them (tests/test_layout.py).
"""
