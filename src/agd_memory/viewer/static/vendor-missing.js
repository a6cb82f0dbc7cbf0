// Served in place of a library that is neither in the plugin's node_modules nor fetched
// into the data folder: the page notices the missing global and says what to do.
