"""envs/scenarios"""
