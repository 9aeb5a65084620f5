"""Vision: find the pieces in a photo, recover their footprints on the board plane, judge them.

Frames: image pixels, and the table frame in mm on the board plane (x right, y down).
"""
