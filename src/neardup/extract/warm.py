"""Imported by the fork server of the extraction workers (:mod:`neardup.workers`): the extractor, its
model and its compiled kernels loaded once there, so every worker forked from it starts ready."""

from .extractor import model_text

model_text("<html><head><title>Warm</title></head><body><article><h1>Warm</h1>"
           "<p>The workers start with the model and its kernels loaded, once.</p></article></body></html>")
