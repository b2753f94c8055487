"""Python-scope host objects: vectors and matrices outside kernels, `x[i]` element views, buffer views,
field components, `FieldsBuilder`, layouts, torch interop, streams and the clock."""
