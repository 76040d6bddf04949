"""The web app (Panel). The only package that imports panel, param or bokeh."""
