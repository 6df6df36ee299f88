package cluster

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The workloads a test creates: one container called "app" running image,
// its pods labelled app=name. A test changes the rest (a Deployment's
// progressDeadlineSeconds, a Job's completions) before it creates them.

// Deployment returns a Deployment called name in namespace with replicas
// pods of image.
func Deployment(namespace, name string, replicas int32, image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: selector(name),
			Template: template(name, image),
		},
	}
}

// StatefulSet returns a StatefulSet called name in namespace with
// replicas pods of image (and no volumes).
func StatefulSet(namespace, name string, replicas int32, image string) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: name,
			Selector:    selector(name),
			Template:    template(name, image),
		},
	}
}

// DaemonSet returns a DaemonSet called name in namespace with a pod of
// image on every node.
func DaemonSet(namespace, name, image string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.DaemonSetSpec{
			Selector: selector(name),
			Template: template(name, image),
		},
	}
}

// Job returns a Job called name in namespace that runs completions pods
// of image to completion, all at once, restartPolicy Never.
func Job(namespace, name string, completions int32, image string) *batchv1.Job {
	t := template(name, image)
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: batchv1.JobSpec{
			Completions: &completions,
			Parallelism: &completions,
			Template:    t,
		},
	}
}

func selector(name string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
}

func template(name, image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: image}},
		},
	}
}
