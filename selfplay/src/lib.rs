//! Self-play (placeholder).
