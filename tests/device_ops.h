/*
 * device_ops.h - the device kernels' checks (device_ops.c), shared by
 * tdtest and ci/device-check. Each returns the number of failed checks
 * (0: all passed; -1 in a double build, which has no float kernels).
 */
#ifndef TD_DEVICE_OPS_H
#define TD_DEVICE_OPS_H

int td_devcheck_rmsnorm_kernels_give_their_bodies_bits(void);
int td_devcheck_softmax_and_relu_kernels_give_their_bodies_bits(void);
int td_devcheck_cross_entropy_kernel_agrees_with_its_body(void);
int td_devcheck_norm_and_adamw_kernels_give_their_bodies_bits(void);
int td_devcheck_conv_kernels_give_their_bodies_bits(void);
int td_devcheck_lru_kernels_give_their_bodies_bits(void);
int td_devcheck_attention_kernels_give_their_bodies_bits(void);
int td_devcheck_optimizer_steps_give_their_bodies_bits(void);
int td_devcheck_fold_kernels_give_their_bodies_values(void);
int td_devcheck_xmodel_agrees_with_the_host(void);
int td_devcheck_training_agrees_with_the_host(void);
int td_devcheck_a_step_never_waits_for_the_gpu(void);
/* dir: where Fashion-MNIST is (NULL: Debian's place); skipped, said, where it is not there */
int td_devcheck_fmnist_recipe_on_the_gpu(const char *dir);
/* bench/core's model cases on the GPU, "gpu-bench CASE MS ms" lines; fails only where one cannot run */
int td_devcheck_gpu_benchmark(void);

#endif
