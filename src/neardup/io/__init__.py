"""Reading inputs and writing results (JSONL and Parquet)."""
