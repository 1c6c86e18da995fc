"""Drop-in replacements for other photonics libraries' functions, on
optinc's decompositions: optinc.compat.strawberryfields."""
