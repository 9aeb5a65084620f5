"""Frame sources: cameras (picamera2, USB/OpenCV), recorded folders and the simulator, behind one interface."""
