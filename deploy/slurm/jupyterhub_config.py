"""A Slurm cluster: each student's server as a Slurm job (batchspawner), on a GPU node with
``--gres=gpu:1``. Layered on the shipped configuration by

    pip install batchspawner
    tiled-explainer hub --password 'class-password' --ip 0.0.0.0 --extra-config deploy/slurm/jupyterhub_config.py

Everything else (login, the pages only, culling, the proxy) stays as the shipped config sets it.
The hub must be reachable from the compute nodes (hub_connect_ip below), the students must have
accounts on the cluster (the hub starts jobs as them through sudo: see batchspawner's README),
and the explainer must be installed in the Python the jobs run (the same path on every node).
Each server then runs as its student's own cluster account, with the job's limits; the hub's
``--state`` folder must be on a file system the nodes share, because the servers read the
pages-only rules from its ``server-config/`` (and must not read the rest: keep its database and
cookie secret mode 0600, as the hub makes them).
"""

c = get_config()  # noqa: F821

c.JupyterHub.spawner_class = "batchspawner.SlurmSpawner"
c.JupyterHub.hub_ip = "0.0.0.0"                 # the jobs call the hub back from compute nodes
c.JupyterHub.hub_connect_ip = "login-node.example.org"   # the name compute nodes reach the hub by

c.SlurmSpawner.req_partition = "gpu"
c.SlurmSpawner.req_nprocs = "2"
c.SlurmSpawner.req_memory = "4G"
c.SlurmSpawner.req_runtime = "2:00:00"          # a lab session; the idle culler ends it sooner
c.SlurmSpawner.req_options = "--gres=gpu:1"     # one GPU per student: "Measure on the GPU" works
c.SlurmSpawner.start_timeout = 300              # a queued job may wait for a free GPU
c.Spawner.environment.update({"EXPLAINER_NO_GPU": ""})  # added to the shipped config's environment

# The pages: the installed package's copy (the same path on every node; read-only for students,
# which the Voila app does not mind), instead of a per-student copy on the hub's machine.
import explainer.resources  # noqa: E402

c.Spawner.notebook_dir = str(explainer.resources.notebooks_dir())
c.Spawner.pre_spawn_hook = None
