"""What docbot learns from labelled questions: one linear model over named inputs, fitted by Newton's method, and
leave-one-site-out folds. Below retrieval and answering, which both use it (the ranker, the gate, the confidence)."""
