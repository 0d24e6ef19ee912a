"""ARC-OPT's camelCase method names of the scenes (``wbc::Scene``, ``AccelerationSceneTSID``): aliases.

snake_case methods are the scenes' API; these mixins give each scene the names an ARC-OPT user knows,
each an :class:`~wbcpy._support.aliases.alias` of the snake_case method (the same method, looked up on
the scene: a subclass's override is called through its alias too).
"""

from __future__ import annotations

from .._support.aliases import alias


class SceneAliases:
    """ARC-OPT names of :class:`~wbcpy.scenes.Scene`'s methods (aliases)."""

    __slots__ = ()

    setReference = alias("set_reference")
    setTaskWeights = alias("set_task_weights")
    setTaskActivation = alias("set_task_activation")
    getTask = alias("get_task")
    hasTask = alias("has_task")
    getWbcConfig = alias("get_wbc_config")
    setJointWeights = alias("set_joint_weights")
    getJointWeights = alias("get_joint_weights")
    getActuatedJointWeights = alias("get_actuated_joint_weights")
    getSolverOutput = alias("get_solver_output")
    getSolverOutputRaw = alias("get_solver_output_raw")
    updateTasksStatus = alias("update_tasks_status")
    getTasksStatus = alias("get_tasks_status")
    sortTaskConfig = alias("sort_task_config")
    getNTaskVariables = alias("get_n_task_variables")
    getNTaskVariablesPerPrio = alias("get_n_task_variables_per_prio")


class InverseDynamicsAliases:
    """ARC-OPT names (``AccelerationSceneTSID``) of :class:`~wbcpy.InverseDynamicsScene`'s own methods
    (aliases)."""

    __slots__ = ()

    getJointTorques = alias("get_joint_torques")
    getContactWrenches = alias("get_contact_wrenches")
    setContacts = alias("set_contacts")
    setContactActive = alias("set_contact_active")
