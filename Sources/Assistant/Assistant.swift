// The Assistant module; see HOUSE_STYLE.md for its place in the pipeline.
