"""DuckDB: schema, migrations and every SQL statement. Imports core only."""
