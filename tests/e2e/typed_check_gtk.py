#!/usr/bin/python3
# A GTK3 window (with its accessibility tree) holding one focused entry for typed_check.sh:
#   max      - an entry that keeps at most 5 characters (GtkEntry max-length): what arrives differs
#   password - a password entry (invisible characters; AT-SPI role "password text")
# Title "eacu typed check <mode>"; Return prints the entry's text on stdout and quits.
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

mode = sys.argv[1] if len(sys.argv) > 1 else "max"
win = Gtk.Window(title="eacu typed check " + mode)
win.set_default_size(360, 80)
entry = Gtk.Entry()
if mode == "max":
    entry.set_max_length(5)
elif mode == "password":
    entry.set_visibility(False)
else:
    sys.exit("expected mode max or password, got " + mode)


def done(e):
    print(e.get_text(), flush=True)
    Gtk.main_quit()


entry.connect("activate", done)
win.connect("destroy", Gtk.main_quit)
win.add(entry)
win.show_all()
entry.grab_focus()
Gtk.main()
