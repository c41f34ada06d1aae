project = 'Orchard'
author = 'The Orchard team'
release = '3.2'
html_theme = 'classic'
extensions = []
exclude_patterns = ['out']
html_show_sourcelink = False
