"""Reviewer notifications: the events worth a message, routing them to channels, signing, retry timing."""
