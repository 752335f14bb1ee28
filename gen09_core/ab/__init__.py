"""The A/B harness: arms on one task sample, metrics, decision, ablations, and the
format-robustness probe."""
