"""data_recipes: see README.md."""
