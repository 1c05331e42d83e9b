"""Optional execution engines (imported only when used)."""
