"""wads"""
