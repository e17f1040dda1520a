"""What a check or a scan found, written for people and for tools: text like a
compiler's, JSON, CSV bug tables, SARIF 2.1.0 and a self-contained HTML page; findings
grouped into root causes; baselines that tell new bugs from known ones.

- formats: text, JSON, CSV and SARIF
- html: the HTML report
- rootcause: findings grouped into bugs with a fingerprint
- baseline: an earlier report to compare with

May import: simulee.errors, simulee.detect, simulee.model, simulee.frontend, interpreter.
"""
