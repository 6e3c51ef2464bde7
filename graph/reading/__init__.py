"""Reading a text when it is written: its names, topics and standing statements."""
