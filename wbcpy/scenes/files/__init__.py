"""YAML scene files (``wbcpy scene``): the robot, its initial state, scene options and tasks with PD
targets (:mod:`~wbcpy.scenes.files.scene_file`), with the contact part
(:mod:`~wbcpy.scenes.files.contact_file`) and the velocity part (:mod:`~wbcpy.scenes.files.velocity_file`).
Their public names are in :mod:`wbcpy.scenes` (:func:`~wbcpy.scenes.load_scene_file`).
"""
