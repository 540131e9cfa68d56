# A Tk window for tests/e2e/windows_events.lua: a button that prints "clicked" and an entry
# that prints "typed=<text>" on Return.
import tkinter as tk

root = tk.Tk()
root.title("eacu tk")
entry = tk.Entry(root)
entry.pack()
entry.focus_set()
entry.bind("<Return>", lambda ev: print("typed=" + entry.get(), flush=True))
tk.Button(root, text="Press me", command=lambda: print("clicked", flush=True)).pack()
root.mainloop()
