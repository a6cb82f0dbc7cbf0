// Served in place of a library that is not installed (no node_modules next to the plugin):
// the page notices the missing global and explains how to install it. Run `npm ci` in the
// plugin folder to get cytoscape and markdown-it.
